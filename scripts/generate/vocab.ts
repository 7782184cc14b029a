// The known vocabulary: themes -> topics -> keywords (with translations), so titles and bodies
// carry keywords that mention lists can be built to match. Exported for demo seeding and tests.

export const VOCAB_LANGS = ['en', 'de', 'fr', 'es', 'pt', 'it', 'ja', 'hi', 'ru'] as const;
export type VocabLang = (typeof VOCAB_LANGS)[number];

/** One keyword in every vocabulary language, in VOCAB_LANGS order. */
export type Keyword = readonly [string, string, string, string, string, string, string, string, string];

export interface Topic {
  label: string;
  labelRu: string;
  /** Taxonomy path of articles on this topic. */
  category: string;
  keywords: readonly Keyword[];
  /** Entity type labels that dominate the topic. */
  personType: string;
  orgType: string;
}

export interface Theme {
  label: string;
  labelRu: string;
  topics: Topic[];
}

const k = (...w: Keyword) => w;

export const THEMES: Theme[] = [
  {
    label: 'Politics & World',
    labelRu: 'Политика и мир',
    topics: [
      {
        label: 'Elections',
        labelRu: 'Выборы',
        category: '/News/Politics',
        personType: 'Politician',
        orgType: 'PoliticalParty',
        keywords: [
          k('election', 'Wahl', 'élection', 'elecciones', 'eleição', 'elezioni', '選挙', 'चुनाव', 'выборы'),
          k('poll', 'Umfrage', 'sondage', 'encuesta', 'pesquisa', 'sondaggio', '世論調査', 'सर्वेक्षण', 'опрос'),
          k('parliament', 'Parlament', 'parlement', 'parlamento', 'parlamento', 'parlamento', '議会', 'संसद', 'парламент'),
        ],
      },
      {
        label: 'Diplomacy',
        labelRu: 'Дипломатия',
        category: '/News/World News',
        personType: 'Politician',
        orgType: 'GovernmentOrganization',
        keywords: [
          k('summit', 'Gipfel', 'sommet', 'cumbre', 'cúpula', 'vertice', '首脳会談', 'शिखर सम्मेलन', 'саммит'),
          k('sanctions', 'Sanktionen', 'sanctions', 'sanciones', 'sanções', 'sanzioni', '制裁', 'प्रतिबंध', 'санкции'),
          k(
            'ceasefire',
            'Waffenruhe',
            'cessez-le-feu',
            'alto el fuego',
            'cessar-fogo',
            'cessate il fuoco',
            '停戦',
            'युद्धविराम',
            'перемирие',
          ),
        ],
      },
      {
        label: 'Extreme Weather',
        labelRu: 'Непогода',
        category: '/News/Weather',
        personType: 'Scientist',
        orgType: 'GovernmentOrganization',
        keywords: [
          k('heatwave', 'Hitzewelle', 'canicule', 'ola de calor', 'onda de calor', 'ondata di caldo', '熱波', 'लू', 'жара'),
          k('storm', 'Sturm', 'tempête', 'tormenta', 'tempestade', 'tempesta', '嵐', 'तूफान', 'шторм'),
          k('flood', 'Hochwasser', 'inondation', 'inundación', 'enchente', 'alluvione', '洪水', 'बाढ़', 'наводнение'),
        ],
      },
      {
        label: 'Public Safety',
        labelRu: 'Общественная безопасность',
        category: '/News/Local News',
        personType: 'Person',
        orgType: 'GovernmentOrganization',
        keywords: [
          k('police', 'Polizei', 'police', 'policía', 'polícia', 'polizia', '警察', 'पुलिस', 'полиция'),
          k('fire', 'Brand', 'incendie', 'incendio', 'incêndio', 'incendio', '火災', 'आग', 'пожар'),
          k('strike', 'Streik', 'grève', 'huelga', 'greve', 'sciopero', 'ストライキ', 'हड़ताल', 'забастовка'),
        ],
      },
    ],
  },
  {
    label: 'Sport',
    labelRu: 'Спорт',
    topics: [
      {
        label: 'Football',
        labelRu: 'Футбол',
        category: '/Sports/Soccer',
        personType: 'Athlete',
        orgType: 'SportsTeam',
        keywords: [
          k('transfer', 'Transfer', 'transfert', 'fichaje', 'transferência', 'trasferimento', '移籍', 'ट्रांसफर', 'трансфер'),
          k('goal', 'Tor', 'but', 'gol', 'gol', 'gol', 'ゴール', 'गोल', 'гол'),
          k('coach', 'Trainer', 'entraîneur', 'entrenador', 'treinador', 'allenatore', '監督', 'कोच', 'тренер'),
        ],
      },
      {
        label: 'Basketball',
        labelRu: 'Баскетбол',
        category: '/Sports/Basketball',
        personType: 'Athlete',
        orgType: 'SportsTeam',
        keywords: [
          k('playoffs', 'Playoffs', 'playoffs', 'playoffs', 'playoffs', 'playoff', 'プレーオフ', 'प्लेऑफ', 'плей-офф'),
          k('draft', 'Draft', 'draft', 'draft', 'draft', 'draft', 'ドラフト', 'ड्राफ्ट', 'драфт'),
          k('championship', 'Meisterschaft', 'championnat', 'campeonato', 'campeonato', 'campionato', '選手権', 'चैंपियनशिप', 'чемпионат'),
        ],
      },
      {
        label: 'Tennis',
        labelRu: 'Теннис',
        category: '/Sports/Tennis',
        personType: 'Athlete',
        orgType: 'SportsOrganization',
        keywords: [
          k(
            'grand slam',
            'Grand Slam',
            'Grand Chelem',
            'Grand Slam',
            'Grand Slam',
            'Grande Slam',
            'グランドスラム',
            'ग्रैंड स्लैम',
            'Большой шлем',
          ),
          k('final', 'Finale', 'finale', 'final', 'final', 'finale', '決勝', 'फाइनल', 'финал'),
          k('injury', 'Verletzung', 'blessure', 'lesión', 'lesão', 'infortunio', '怪我', 'चोट', 'травма'),
        ],
      },
      {
        label: 'Motor Racing',
        labelRu: 'Автоспорт',
        category: '/Sports/Motor Sports',
        personType: 'Athlete',
        orgType: 'SportsTeam',
        keywords: [
          k('grand prix', 'Grand Prix', 'Grand Prix', 'Gran Premio', 'Grande Prêmio', 'Gran Premio', 'グランプリ', 'ग्रां प्री', 'Гран-при'),
          k(
            'pole position',
            'Pole-Position',
            'pole position',
            'pole position',
            'pole position',
            'pole position',
            'ポールポジション',
            'पोल पोजीशन',
            'поул-позиция',
          ),
          k(
            'pit stop',
            'Boxenstopp',
            'arrêt au stand',
            'parada en boxes',
            'pit stop',
            'pit stop',
            'ピットストップ',
            'पिट स्टॉप',
            'пит-стоп',
          ),
        ],
      },
    ],
  },
  {
    label: 'Money & Markets',
    labelRu: 'Деньги и рынки',
    topics: [
      {
        label: 'Stock Markets',
        labelRu: 'Фондовые рынки',
        category: '/Finance/Investing/Stocks',
        personType: 'BusinessPerson',
        orgType: 'Corporation',
        keywords: [
          k('stocks', 'Aktien', 'actions', 'acciones', 'ações', 'azioni', '株式', 'शेयर', 'акции'),
          k('earnings', 'Quartalszahlen', 'résultats', 'resultados', 'resultados', 'utili', '決算', 'कमाई', 'прибыль'),
          k('IPO', 'Börsengang', 'introduction en bourse', 'salida a bolsa', 'IPO', 'IPO', '新規上場', 'आईपीओ', 'IPO'),
        ],
      },
      {
        label: 'Central Banks',
        labelRu: 'Центробанки',
        category: '/Finance/Banking',
        personType: 'BusinessPerson',
        orgType: 'GovernmentOrganization',
        keywords: [
          k(
            'interest rates',
            'Leitzins',
            "taux d'intérêt",
            'tipos de interés',
            'juros',
            'tassi di interesse',
            '金利',
            'ब्याज दर',
            'процентные ставки',
          ),
          k('inflation', 'Inflation', 'inflation', 'inflación', 'inflação', 'inflazione', 'インフレ', 'महंगाई', 'инфляция'),
          k(
            'central bank',
            'Zentralbank',
            'banque centrale',
            'banco central',
            'banco central',
            'banca centrale',
            '中央銀行',
            'केंद्रीय बैंक',
            'центробанк',
          ),
        ],
      },
      {
        label: 'Energy Prices',
        labelRu: 'Цены на энергию',
        category: '/News/Business News',
        personType: 'BusinessPerson',
        orgType: 'Corporation',
        keywords: [
          k(
            'oil price',
            'Ölpreis',
            'prix du pétrole',
            'precio del petróleo',
            'preço do petróleo',
            'prezzo del petrolio',
            '原油価格',
            'तेल की कीमत',
            'цена на нефть',
          ),
          k(
            'electricity bills',
            'Strompreis',
            "facture d'électricité",
            'factura de la luz',
            'conta de luz',
            'bolletta elettrica',
            '電気料金',
            'बिजली बिल',
            'счета за электричество',
          ),
          k('OPEC', 'OPEC', 'OPEP', 'OPEP', 'OPEP', 'OPEC', 'OPEC', 'ओपेक', 'ОПЕК'),
        ],
      },
    ],
  },
  {
    label: 'Technology',
    labelRu: 'Технологии',
    topics: [
      {
        label: 'Artificial Intelligence',
        labelRu: 'Искусственный интеллект',
        category: '/Computers & Electronics/Software',
        personType: 'BusinessPerson',
        orgType: 'Corporation',
        keywords: [
          k(
            'artificial intelligence',
            'künstliche Intelligenz',
            'intelligence artificielle',
            'inteligencia artificial',
            'inteligência artificial',
            'intelligenza artificiale',
            '人工知能',
            'कृत्रिम बुद्धिमत्ता',
            'искусственный интеллект',
          ),
          k('chatbot', 'Chatbot', 'chatbot', 'chatbot', 'chatbot', 'chatbot', 'チャットボット', 'चैटबॉट', 'чат-бот'),
          k('chip', 'Chip', 'puce', 'chip', 'chip', 'chip', '半導体', 'चिप', 'чип'),
        ],
      },
      {
        label: 'Smartphones',
        labelRu: 'Смартфоны',
        category: '/Computers & Electronics/Consumer Electronics',
        personType: 'BusinessPerson',
        orgType: 'Corporation',
        keywords: [
          k('smartphone', 'Smartphone', 'smartphone', 'smartphone', 'smartphone', 'smartphone', 'スマートフォン', 'स्मार्टफोन', 'смартфон'),
          k('battery', 'Akku', 'batterie', 'batería', 'bateria', 'batteria', 'バッテリー', 'बैटरी', 'аккумулятор'),
          k('launch', 'Marktstart', 'lancement', 'lanzamiento', 'lançamento', 'lancio', '発売', 'लॉन्च', 'запуск'),
        ],
      },
      {
        label: 'Cybersecurity',
        labelRu: 'Кибербезопасность',
        category: '/Computers & Electronics/Computer Security',
        personType: 'Person',
        orgType: 'Corporation',
        keywords: [
          k(
            'data breach',
            'Datenleck',
            'fuite de données',
            'filtración de datos',
            'vazamento de dados',
            'violazione dei dati',
            '情報漏洩',
            'डेटा लीक',
            'утечка данных',
          ),
          k(
            'ransomware',
            'Ransomware',
            'rançongiciel',
            'ransomware',
            'ransomware',
            'ransomware',
            'ランサムウェア',
            'रैंसमवेयर',
            'программа-вымогатель',
          ),
          k('hackers', 'Hacker', 'pirates informatiques', 'hackers', 'hackers', 'hacker', 'ハッカー', 'हैकर', 'хакеры'),
        ],
      },
    ],
  },
  {
    label: 'Health & Science',
    labelRu: 'Здоровье и наука',
    topics: [
      {
        label: 'Medical Research',
        labelRu: 'Медицинские исследования',
        category: '/Health/Medical Research',
        personType: 'Scientist',
        orgType: 'Organization',
        keywords: [
          k('vaccine', 'Impfstoff', 'vaccin', 'vacuna', 'vacina', 'vaccino', 'ワクチン', 'टीका', 'вакцина'),
          k(
            'clinical trial',
            'klinische Studie',
            'essai clinique',
            'ensayo clínico',
            'ensaio clínico',
            'sperimentazione clinica',
            '臨床試験',
            'क्लिनिकल ट्रायल',
            'клиническое испытание',
          ),
          k('cancer', 'Krebs', 'cancer', 'cáncer', 'câncer', 'cancro', 'がん', 'कैंसर', 'рак'),
        ],
      },
      {
        label: 'Nutrition',
        labelRu: 'Питание',
        category: '/Health/Nutrition',
        personType: 'Scientist',
        orgType: 'Organization',
        keywords: [
          k('diet', 'Ernährung', 'régime', 'dieta', 'dieta', 'dieta', 'ダイエット', 'आहार', 'диета'),
          k('protein', 'Protein', 'protéines', 'proteína', 'proteína', 'proteine', 'タンパク質', 'प्रोटीन', 'белок'),
          k('sugar', 'Zucker', 'sucre', 'azúcar', 'açúcar', 'zucchero', '砂糖', 'चीनी', 'сахар'),
        ],
      },
      {
        label: 'Mental Health',
        labelRu: 'Психическое здоровье',
        category: '/Health/Mental Health',
        personType: 'Scientist',
        orgType: 'Organization',
        keywords: [
          k('stress', 'Stress', 'stress', 'estrés', 'estresse', 'stress', 'ストレス', 'तनाव', 'стресс'),
          k('sleep', 'Schlaf', 'sommeil', 'sueño', 'sono', 'sonno', '睡眠', 'नींद', 'сон'),
          k('burnout', 'Burnout', 'burn-out', 'burnout', 'burnout', 'burnout', '燃え尽き症候群', 'बर्नआउट', 'выгорание'),
        ],
      },
    ],
  },
  {
    label: 'Culture & Lifestyle',
    labelRu: 'Культура и стиль жизни',
    topics: [
      {
        label: 'Film & TV',
        labelRu: 'Кино и ТВ',
        category: '/Arts & Entertainment/Movies',
        personType: 'Actor',
        orgType: 'Organization',
        keywords: [
          k('box office', 'Kinokasse', 'box-office', 'taquilla', 'bilheteria', 'botteghino', '興行収入', 'बॉक्स ऑफिस', 'кассовые сборы'),
          k('trailer', 'Trailer', 'bande-annonce', 'tráiler', 'trailer', 'trailer', '予告編', 'ट्रेलर', 'трейлер'),
          k('streaming', 'Streaming', 'streaming', 'streaming', 'streaming', 'streaming', '配信', 'स्ट्रीमिंग', 'стриминг'),
        ],
      },
      {
        label: 'Music',
        labelRu: 'Музыка',
        category: '/Arts & Entertainment/Music & Audio',
        personType: 'Musician',
        orgType: 'MusicGroup',
        keywords: [
          k('album', 'Album', 'album', 'álbum', 'álbum', 'album', 'アルバム', 'एल्बम', 'альбом'),
          k('tour', 'Tournee', 'tournée', 'gira', 'turnê', 'tour', 'ツアー', 'टूर', 'тур'),
          k('festival', 'Festival', 'festival', 'festival', 'festival', 'festival', 'フェス', 'उत्सव', 'фестиваль'),
        ],
      },
      {
        label: 'Food',
        labelRu: 'Еда',
        category: '/Food & Drink/Cooking & Recipes',
        personType: 'Person',
        orgType: 'Organization',
        keywords: [
          k('recipe', 'Rezept', 'recette', 'receta', 'receita', 'ricetta', 'レシピ', 'रेसिपी', 'рецепт'),
          k('restaurant', 'Restaurant', 'restaurant', 'restaurante', 'restaurante', 'ristorante', 'レストラン', 'रेस्टोरेंट', 'ресторан'),
          k('chef', 'Koch', 'chef', 'chef', 'chef', 'chef', 'シェフ', 'शेफ', 'шеф-повар'),
        ],
      },
      {
        label: 'Travel',
        labelRu: 'Путешествия',
        category: '/Travel/Air Travel',
        personType: 'Person',
        orgType: 'Corporation',
        keywords: [
          k('flights', 'Flüge', 'vols', 'vuelos', 'voos', 'voli', '航空便', 'उड़ानें', 'авиарейсы'),
          k('hotel', 'Hotel', 'hôtel', 'hotel', 'hotel', 'albergo', 'ホテル', 'होटल', 'отель'),
          k('visa', 'Visum', 'visa', 'visado', 'visto', 'visto', 'ビザ', 'वीज़ा', 'виза'),
        ],
      },
    ],
  },
];

export function keywordIn(keyword: Keyword, lang: string): string {
  const i = VOCAB_LANGS.indexOf(lang as VocabLang);
  return keyword[Math.max(i, 0)];
}

/** Every English keyword, for building mention lists that are known to match. */
export const KEYWORDS_EN: string[] = THEMES.flatMap((t) => t.topics.flatMap((p) => p.keywords.map((kw) => kw[0])));
